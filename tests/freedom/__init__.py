"""The freedom matrix: correct drivers that use the freedoms the contract leaves, and the
proof that every check and fuzz target passes them (issue 17, decisions §4.11)."""
