#!/usr/bin/env bash
set -u
source build/gpu-bundle/env.sh
G=$PWD/build/gpu-bundle/bin/gradparity
nvidia-smi -L > $OUT/gpu.txt 2>&1
timeout 60 $G list backends > $OUT/backends.txt 2>&1
timeout 150 $G run --backend opencl-src:examples/kernels-opencl --op exp,mul,softmax,tanh --report-dir $OUT/good -j 8 --no-progress > $OUT/good.txt 2>&1; echo "rc=$?" >> $OUT/good.txt
cp -r examples/kernels-opencl /tmp/kb
sed -i 's/for (uint j = 0; j < n; ++j) dot +=/for (uint j = 0; j + 1 < n; ++j) dot +=/' /tmp/kb/softmax.cl
timeout 150 $G run --backend opencl-src:/tmp/kb --op exp,mul,softmax --dtype f32 --report-dir $OUT/planted -j 8 --no-progress > $OUT/planted.txt 2>&1; echo "rc=$?" >> $OUT/planted.txt
mkdir -p /tmp/bad && cp examples/kernels-opencl/exp.cl /tmp/bad/ && sed -i 's/exp(in0\[i\]);/exp(in0[i])/' /tmp/bad/exp.cl
timeout 60 $G run --backend opencl-src:/tmp/bad --op exp --report-dir $OUT/bad > $OUT/bad.txt 2>&1; echo "rc=$?" >> $OUT/bad.txt
timeout 150 $G stress --backend opencl-src:examples/kernels-opencl --op exp,mul,softmax --dtype f32 --threads 8 --iterations 8 --no-progress > $OUT/stress.txt 2>&1; echo "rc=$?" >> $OUT/stress.txt
