// Replaced by CLI tests of `audit --closure` below.
