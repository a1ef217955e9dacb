"""What the last build read and made, kept as data whose loading runs no code."""
