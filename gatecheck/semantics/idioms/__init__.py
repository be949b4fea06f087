"""Device idioms, one module each: what it recognises (`IDIOM`), with the examples that
prove it and the shapes it must leave unknown. oracle.discover_idioms() finds them."""
