"""The llama.cpp lab's fixed setup: the two hosts, their addresses and ports, the env file that
configures llama-server, and the sampling rate of its captures (run.py and readme.py)."""
from pipeline.collect.netns_lab import CLIENT_ADDR, SERVER_ADDR

HEAD, WORKER = "lab-head", "lab-worker"
HEAD_ADDR, WORKER_ADDR = SERVER_ADDR, CLIENT_ADDR
RPC_PORT, HTTP_PORT, IPERF_PORT = 50052, 8080, 5201
SERIES = "llama-rpc-lab"
ENV_FILE = "env/lab-head-llama-server.env"
IDLE_LEAD_S = 3.0           # quiet seconds in the captures before the first request
# 200 Hz: a window is counted in whole sampling intervals, so an interval cut by the window's
# end loses at most 5 ms of its traffic (a KV copy of a few MB lasts 0.1-1 s on these rates)
NETDEV_HZ = 200.0
