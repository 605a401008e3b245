"""Task families: metadata, instances, instruction, oracle and evaluator, one module per family."""
