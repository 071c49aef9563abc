"""Classification: kNN from similarities, the methods and their settings, model selection on the validation
split, chapter 4's kNN runs, chapter 7's linear models and statistics of test errors."""
