// The translation unit of perflab_gtest_pch, the target that makes the precompiled header every
// GoogleTest binary reuses (tests/CMakeLists.txt). It has no tests of its own.
