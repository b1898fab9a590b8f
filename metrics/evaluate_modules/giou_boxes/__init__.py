"""Local evaluate module folder for metrics.giou_boxes (a package so that it ships with the wheel)."""
