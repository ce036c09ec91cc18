"""The `village-rules` command line: `main` builds the parser and dispatches; one module per
command group (`fuzz`, `pictures`, `prove`, `readings`)."""
