"""The application layer: what `check` does with an analysis before it is reported
(suppressions, select/ignore, files scope, baseline, --new-since, fixes). No click, no
rich: the CLI parses options, calls in here and prints what comes back."""
