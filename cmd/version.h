/* The version string, overridable from the Makefile. */
#ifndef BRINGUP_VERSION
#define BRINGUP_VERSION "0.1.0"
#endif
