"""The study: the chapters' parameters and the pipeline that runs them and keeps their records."""
