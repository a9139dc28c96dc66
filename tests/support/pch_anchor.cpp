// The translation unit that builds the test programs' precompiled header (tests/CMakeLists.txt,
// gp_test_pch); it has nothing of its own.
