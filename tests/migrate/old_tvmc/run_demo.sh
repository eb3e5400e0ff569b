#!/bin/bash
# The compile step of TVM's Ethos-U demo (apps/microtvm/ethosu/run_demo.sh, TVM <= 0.18).
set -e
python3 -m tvm.driver.tvmc compile --target=ethos-u,cmsis-nn,c \
    --target-ethos-u-accelerator_config=ethos-u55-256 \
    --target-cmsis-nn-mcpu=cortex-m55 \
    --target-c-mcpu=cortex-m55 \
    --runtime=crt \
    --executor=aot \
    --executor-aot-interface-api=c \
    --executor-aot-unpacked-api=1 \
    --pass-config tir.usmp.enable=1 \
    --pass-config tir.usmp.algorithm=hill_climb \
    --pass-config tir.disable_storage_rewrite=1 \
    --pass-config tir.disable_vectorize=1 ./mobilenet_v2_1.0_224_INT8.tflite --output-format=mlf
tar -xf module.tar
