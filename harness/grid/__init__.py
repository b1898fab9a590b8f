"""`python -m harness grid GRID.yaml`: the model x task grid as one resumable command (docs/cli.md, "grid").

spec.py reads and validates the grid file; cells.py turns it into cells with identities; state.py keeps
OUTPUT/grid.json and the per-cell status files; worker.py runs one model's cells (the run command's path);
executors.py starts workers locally, as Ray tasks or as SLURM jobs; driver.py ties them together.
"""
