-- check: every journal window used for wire bytes (prefill, largest KV snapshot) lies inside a netdev capture of each host (head, worker) that has captures
-- blocking: true
-- fix: capture /proc/net/dev on that host from before the window's start to after its end (python -m pipeline.collect netdev), or correct the journal's or the capture's clock; a campaign without captures of a host is not failed, its wire bytes from that host are not measured
-- int_deployment__window_traffic keeps a host's row only when one of its captures covers the
-- whole window; a host with captures and no such row would have its wire bytes counted over
-- part of the window, too small. A host with no capture at all measures nothing: the figures
-- that need its bytes are not measured, and the rest of the campaign publishes.
with windows as (
    select campaign, 'prefill' as window_kind, journal_file as source_file
    from int_deployment__journal_runs
    union all
    select campaign, 'kv_snapshot' as window_kind, max(source_file) as source_file
    from int_deployment__kv_snapshots
    group by campaign
),
captured as (
    select distinct campaign, host
    from int_netdev__intervals
),
needed as (
    select w.campaign, w.window_kind, w.source_file, r.host, r.role
    from windows as w
    join int_deployment__host_roles as r
        on r.campaign = w.campaign and r.role in ('head', 'worker')
    join captured as c on c.campaign = r.campaign and c.host = r.host
)
select n.campaign, n.window_kind, n.role, n.host, n.source_file as journal_file
from needed as n
left join int_deployment__window_traffic as t
    on t.campaign = n.campaign and t.window_kind = n.window_kind and t.host = n.host
where t.host is null
order by n.campaign, n.window_kind, n.role
