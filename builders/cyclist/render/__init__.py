"""CycliST renderers: `raster` (fast numpy CPU rasteriser) and `blender` (Cycles through bpy)."""
