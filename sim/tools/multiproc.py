#!/bin/sh
# multiproc.py stand-in: NVIDIA DeepLearningExamples' launcher for the
# PyTorch ResNet-50 v1.5 (run on real nodes, in the NGC container, as
# `python ./multiproc.py [--nnodes N --node_rank R --master_addr A
# --master_port P] --nproc_per_node G ./main.py --arch resnet50 -b 256
# --amp --data-backend synthetic --prof 100 ...`). It prints what local
# rank 0's main.py prints (the other ranks' stdout goes to files): the
# model, DLLogger's PARAMETER line, then one "DLL ... - Epoch: 0
# Iteration: I  train.loss : L  train.total_ips : X img/s" line an
# iteration, on node_rank 0 only (DLLogger logs on global rank 0), in the
# layout of the real NGC 20.03 capture (tests/fixtures/tools/dle-resnet50).
#
# Throughput: synthetic ImageNet at the GPU model's rate (tf_cnn_benchmarks'
# per-GPU figure x 3.2 with --amp, x 1.8 in FP32: V100 ~1150 / ~650 img/s,
# the capture's 16 V100 in FP32 ran ~10,300), times the world size, with a
# scaling loss on 8 GPUs and across nodes; the job runs at the pace of its
# slowest GPU (a throttled GPU on any node slows all). The first three
# iterations ramp up (the capture's first runs at 3% of the rate); every
# run draws about +/-2% of noise and each iteration +/-3%.
# Across nodes (mpirun starts one launcher a node, --node_rank from
# OMPI_COMM_WORLD_RANK) each node registers its GPUs' pace under
# CLUSTER/mpi/<job>/ (torch.distributed's rendezvous) and node_rank 0
# waits for all of them before it prints.
case $0 in */*) SIM_BIN=${0%/*};; *) SIM_BIN=.;; esac
. "$SIM_BIN/sim-gpu-lib.sh"
sim_load_node
gpu_model "${GPU_MODEL:-}"

nnodes=1 node_rank=0 nproc=1 maddr=127.0.0.1 mport=29500
while [ $# -gt 0 ]; do
	case $1 in
	--nnodes=*) nnodes=${1#*=};;
	--node_rank=*) node_rank=${1#*=};;
	--nproc_per_node=*) nproc=${1#*=};;
	--master_addr=*) maddr=${1#*=};;
	--master_port=*) mport=${1#*=};;
	--nnodes) shift; nnodes=$1;;
	--node_rank) shift; node_rank=$1;;
	--nproc_per_node) shift; nproc=$1;;
	--master_addr) shift; maddr=$1;;
	--master_port) shift; mport=$1;;
	-*) echo "usage: multiproc.py [-h] [--nnodes NNODES] [--node_rank NODE_RANK] [--nproc_per_node NPROC_PER_NODE] [--master_addr MASTER_ADDR] [--master_port MASTER_PORT] training_script ..." >&2
	    echo "multiproc.py: error: unrecognized arguments: $1" >&2; exit 2;;
	*) break;;
	esac
	shift
done
script=${1-}
[ $# -gt 0 ] && shift
case $script in
*main.py) ;;
*) echo "python: can't open file '$script': [Errno 2] No such file or directory" >&2; exit 2;;
esac

arch=resnet50 cfg=classic batch=256 amp=False fp16=False sls=1 dls=False backend=dali-cpu
prof=-1 epochs=90 lr=0.1 workspace=./ data= training_only=False save=True
while [ $# -gt 0 ]; do
	case $1 in
	--arch) shift; arch=$1;;
	-c | --model-config) shift; cfg=$1;;
	-b | --batch-size) shift; batch=$1;;
	--amp) amp=True;;
	--fp16) fp16=True;;
	--static-loss-scale) shift; sls=$1;;
	--dynamic-loss-scale) dls=True;;
	--data-backend) shift; backend=$1;;
	--prof) shift; prof=$1;;
	--epochs) shift; epochs=$1;;
	--lr) shift; lr=$1;;
	--workspace) shift; workspace=$1;;
	--training-only) training_only=True;;
	--no-checkpoints) save=False;;
	-*) ;;
	*) data=$1;;
	esac
	shift
done
have=$(gpu_count)
if [ "$nproc" -gt "$have" ]; then
	cat >&2 <<EOF
Traceback (most recent call last):
  File "./main.py", line 455, in <module>
    main(args)
  File "./main.py", line 253, in main
    torch.cuda.set_device(args.gpu)
RuntimeError: CUDA error: invalid device ordinal
EOF
	exit 1
fi
world=$((nnodes * nproc))
[ "$prof" -gt 0 ] 2>/dev/null || prof=100
case $cfg in fanin) init=fan_in;; *) init=fan_out;; esac
echo "=> creating model '('$arch', '$cfg', 1000)'"
echo "Version: {'net': <class 'image_classification.resnet.ResNet'>, 'block': <class 'image_classification.resnet.Bottleneck'>, 'layers': [3, 4, 6, 3], 'widths': [64, 128, 256, 512], 'expansion': 4}"
echo "Config: {'conv': <class 'torch.nn.modules.conv.Conv2d'>, 'conv_init': '$init', 'nonlinearity': 'relu', 'last_bn_0_init': False, 'activation': <function <lambda> at 0x7f$(printf '%x' $(($$ * 4099 % 65536)))49a19d8>}"

slow=$(gpu_slowest_factor "$nproc")
if [ "$nnodes" -gt 1 ]; then
	jd=$BRINGUP_SIM_CLUSTER/mpi/${PMIX_NAMESPACE:-${OMPI_MCA_ess_base_jobid:-dle-$maddr-$mport}}
	mkdir -p "$jd"
	echo "$node_rank $NODE_NAME $slow $nproc" >"$jd/.$node_rank.tmp" && mv "$jd/.$node_rank.tmp" "$jd/$node_rank"
	[ "$node_rank" = 0 ] || exit 0
	t=0
	while [ "$(ls "$jd" | wc -l)" -lt "$nnodes" ] && [ "$t" -lt 600 ]; do
		sleep 0.1; t=$((t + 1))
	done
	if [ "$(ls "$jd" | wc -l)" -lt "$nnodes" ]; then
		rm -rf "$jd"
		echo "RuntimeError: Timed out initializing process group in store based barrier on rank: 0, for key: store_based_barrier_key:1 (world_size=$world, worker_count=$(($(ls "$jd" 2>/dev/null | wc -l) * nproc)), timeout=0:30:00)" >&2
		exit 1
	fi
	slow=$(sort -n "$jd"/[0-9]* | awk '{ if (s == "" || $3 < s) s = $3 } END { print s }')
	rm -rf "$jd"
fi
dist=False
[ "$world" -gt 1 ] && dist=True
now=$(date +%s) ns=$(date +%N 2>/dev/null)
awk -v per="$G_IMGS" -v amp="$amp" -v w="$world" -v nn="$nnodes" -v slow="$slow" \
    -v iters="$prof" -v b="$batch" -v t0="$now" -v pid=$$ -v ns="$ns" \
    -v params="data : ${data:-/data/imagenet}  data_backend : $backend  arch : $arch  model_config : $cfg  num_classes : 1000  workers : 5  epochs : $epochs  run_epochs : -1  batch_size : $batch  optimizer_batch_size : -1  lr : $lr  lr_schedule : step  warmup : 0  label_smoothing : 0.0  mixup : 0.0  momentum : 0.9  weight_decay : 0.0001  bn_weight_decay : False  nesterov : False  print_freq : 10  resume : None  pretrained_weights :   fp16 : $fp16  static_loss_scale : $sls  dynamic_loss_scale : $dls  prof : $prof  amp : $amp  seed : None  gather_checkpoints : False  raport_file : experiment_raport.json  evaluate : False  training_only : $training_only  save_checkpoints : $save  checkpoint_filename : checkpoint.pth.tar  workspace : $workspace  memory_format : nchw  distributed : $dist  local_rank : 0  gpu : 0  world_size : $world " '
# "YYYY-MM-DD HH:MM:SS.uuuuuu" (UTC) of t seconds since the epoch
# (days to civil date: H. Hinnant), as DLLogger stamps its lines.
function stamp(t,    s, d, z, era, doe, yoe, y, doy, mp, dd, m, us) {
	s = int(t); us = int((t - s) * 1000000)
	d = int(s / 86400); s -= d * 86400
	z = d + 719468; era = int(z / 146097); doe = z - era * 146097
	yoe = int((doe - int(doe / 1460) + int(doe / 36524) - int(doe / 146096)) / 365)
	y = yoe + era * 400; doy = doe - (365 * yoe + int(yoe / 4) - int(yoe / 100))
	mp = int((5 * doy + 2) / 153); dd = doy - int((153 * mp + 2) / 5) + 1
	m = mp < 10 ? mp + 3 : mp - 9; if (m <= 2) y++
	return sprintf("%04d-%02d-%02d %02d:%02d:%02d.%06d", y, m, dd, int(s / 3600),
		int(s % 3600 / 60), s % 60, us)
}
BEGIN {
	srand((pid * 7919 + substr(ns, 1, 6)) % 2147483647)
	rate = per * (amp == "True" ? 3.2 : 1.8) * slow / 100 * w * (w > 1 ? 0.92 : 1) * \
		(nn > 1 ? 0.95 : 1) * (1 + (rand() - 0.5) * 0.04)
	t = t0 + substr(ns, 1, 6) / 1e6
	printf "DLL %s - PARAMETER %s\n", stamp(t), params
	print " ! Weight decay NOT applied to BN parameters "
	print "RUNNING EPOCHS FROM 0 TO 1"
	t += 12 + rand() * 8
	loss = 7.09
	for (i = 1; i <= iters; i++) {
		r = (i == 1 ? 0.025 : i == 2 ? 0.4 : i == 3 ? 0.65 : 1) * rate * (1 + (rand() - 0.5) * 0.06)
		t += w * b / r
		printf "DLL %s - Epoch: 0 Iteration: %d  train.loss : %.5f  train.total_ips : %.2f img/s\n",
			stamp(t), i, loss, r
		loss -= (loss > 6.2 ? 0.03 + rand() * 0.05 : 0)
	}
}'
