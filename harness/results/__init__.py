"""Results: writing the results and samples files (atomically, schema-checked) and lm-eval's keys in them."""
