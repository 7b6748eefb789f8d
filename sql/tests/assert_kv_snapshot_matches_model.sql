-- check: the KV snapshot's bytes measured on the wire are within 5 % of the model (tokens x worker FA layers x KV bytes per token)
-- blocking: true
-- A larger gap means the netdev window, the layer split or the KV size is wrong, and every
-- snapshot what-if built on the measured bytes would carry that error.
select campaign, netdev_file, journal_file, copied_bytes, model_bytes, measured_vs_model_fraction
from fct_kv_snapshot
where measured_vs_model_fraction is null
   or abs(measured_vs_model_fraction) > 0.05
