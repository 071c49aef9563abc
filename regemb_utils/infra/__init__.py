"""The plumbing every layer may use and that changes no result: the artifact cache and its keys, progress bars,
and where parallel work runs."""
