-- check: iperf3 throughput in each direction is at most the link's negotiated line rate
-- TCP payload cannot exceed the Ethernet line rate; a faster result means the wrong link or
-- interface was measured (warn: the figure is shown but the manifest needs a look).
select campaign, link_id, negotiated_bits_per_s, iperf3_head_to_worker_bytes_per_s,
       iperf3_worker_to_head_bytes_per_s, iperf3_files
from fct_deployment_links
where iperf3_head_to_worker_bytes_per_s * 8 > negotiated_bits_per_s
   or iperf3_worker_to_head_bytes_per_s * 8 > negotiated_bits_per_s
