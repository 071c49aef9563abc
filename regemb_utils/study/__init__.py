"""The study: chapter parameters, the pipeline of chapters, the artifact cache, the paper's numbers, the book's
tables and figures, each chapter's tables and figures, and the replication scorecard."""
