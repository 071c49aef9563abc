"""The book's presentation: tables and glue, the figure style, figures, label placement and prose."""
