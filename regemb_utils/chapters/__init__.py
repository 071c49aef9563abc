"""What each chapter computes and shows: one module per notebook (chapter 4 with its worked example and parameter
study), and the exercises' solutions."""
