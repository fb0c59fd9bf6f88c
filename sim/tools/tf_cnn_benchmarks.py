#!/bin/sh
# tf_cnn_benchmarks.py stand-in: the same as tf_cnn_benchmarks (see there),
# for command lines that name the script itself.
exec "$(dirname "$0")/tf_cnn_benchmarks" "$@"
