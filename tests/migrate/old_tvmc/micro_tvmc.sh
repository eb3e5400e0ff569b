#!/bin/bash
# The compile step of TVM's microTVM tvmc tutorial (gallery/how_to/work_with_microtvm/micro_tvmc.sh,
# TVM <= 0.18), with the tutorial's other tvmc commands, which hold no compilation config.

rm -rf project_zephyr

wget -c https://github.com/tensorflow/tflite-micro/raw/main/tensorflow/lite/micro/examples/magic_wand/magic_wand.tflite
tvmc compile magic_wand.tflite \
    --target='c -keys=cpu -model=host' \
    --runtime=crt \
    --runtime-crt-system-lib 1 \
    --executor='graph' \
    --executor-graph-link-params 0 \
    --output model.tar \
    --output-format mlf \
    --pass-config tir.disable_vectorize=1 \
    --disabled-pass=AlterOpLayout

tvmc micro create \
    project_zephyr \
    model.tar \
    zephyr \
    --project-option project_type=host_driven board=qemu_x86

tvmc run \
     --device micro \
     project_zephyr \
     --fill-mode ones \
     --print-top 4
