-- check: the KV snapshot's bytes measured on the wire are within 5 % of the model (tokens x worker FA layers x KV bytes per token)
-- blocking: true
-- fix: check the worker's netdev capture around the snapshot's journal line, the env file's tensor split and the KV cache types against what the service ran; without a GGUF or a capture the comparison is not measured and the check does not fail
-- A larger gap means the netdev window, the layer split or the KV size is wrong, and every
-- snapshot what-if built on the measured bytes would carry that error. Only a comparison that
-- has both sides can be wrong: a campaign without the GGUF (no model bytes) or without the
-- worker's capture (no measured bytes) leaves it not measured.
select campaign, netdev_file, journal_file, copied_bytes, model_bytes, measured_vs_model_fraction
from fct_kv_snapshot
where abs(measured_vs_model_fraction) > 0.05
