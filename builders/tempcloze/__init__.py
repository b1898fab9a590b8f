"""TempCloze builder: turns a folder of videos into a TempCloze benchmark (gaps, distractors, filters,
clips as files or virtual segment lists, Mixed and Hard subsets, diagnostics)."""
