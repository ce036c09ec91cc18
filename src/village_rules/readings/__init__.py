"""Where readings of the rules part: self-composition of one game under two readings of an
ambiguity register entry, and the register's stored divergence witnesses."""
