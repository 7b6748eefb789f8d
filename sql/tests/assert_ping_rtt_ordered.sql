-- check: every ping summary has min <= avg <= max round-trip time
-- A summary out of order was not printed by ping as read (wrong column mapping or an edited
-- file); runs with every reply lost have no RTTs and are not checked.
select campaign, source_file, rtt_min_s, rtt_avg_s, rtt_max_s
from stg_deployment__ping
where rtt_min_s > rtt_avg_s or rtt_avg_s > rtt_max_s
