-- check: every journal window used for wire bytes (prefill, largest KV snapshot) lies inside the netdev sampling window of both the head and the worker
-- blocking: true
-- int_deployment__window_traffic keeps a host's row only when one of its captures covers the
-- whole window; a missing row means the published wire bytes were counted over part of the
-- window (or from one side only), so they would be too small.
with windows as (
    select campaign, 'prefill' as window_kind, journal_file as source_file
    from int_deployment__journal_runs
    union all
    select campaign, 'kv_snapshot' as window_kind, max(source_file) as source_file
    from int_deployment__kv_snapshots
    group by campaign
),
needed as (
    select w.campaign, w.window_kind, w.source_file, r.host, r.role
    from windows as w
    join int_deployment__host_roles as r
        on r.campaign = w.campaign and r.role in ('head', 'worker')
)
select n.campaign, n.window_kind, n.role, n.host, n.source_file as journal_file
from needed as n
left join int_deployment__window_traffic as t
    on t.campaign = n.campaign and t.window_kind = n.window_kind and t.host = n.host
where t.host is null
order by n.campaign, n.window_kind, n.role
