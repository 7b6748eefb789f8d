-- check: iperf3 throughput in each direction is at most the link's negotiated line rate
-- TCP payload cannot exceed the Ethernet line rate; a faster result means the wrong link or
-- interface was measured (warn: the figure is shown but the manifest needs a look). A link the
-- manifest marks `nominal_speed: true` (a veth pair: ethtool prints the driver's fixed
-- 10000Mb/s, no link was negotiated) has no line rate to exceed.
select l.campaign, l.link_id, l.negotiated_bits_per_s, l.iperf3_head_to_worker_bytes_per_s,
       l.iperf3_worker_to_head_bytes_per_s, l.iperf3_files
from fct_deployment_links as l
join raw_campaigns as c on c.campaign = l.campaign
where (bytes_to_bits(l.iperf3_head_to_worker_bytes_per_s) > l.negotiated_bits_per_s
       or bytes_to_bits(l.iperf3_worker_to_head_bytes_per_s) > l.negotiated_bits_per_s)
  and coalesce(try_cast(c.links->l.link_id->>'nominal_speed' as boolean), false) = false
