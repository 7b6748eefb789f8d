-- grain: one row per campaign
-- The KV snapshot copies the worker's attention KV to the head: bytes are the worker's
-- transmit bytes in the journal window (idle removed); the link time is the sum of the
-- sampling intervals that ran "busy" (above busy_fraction_of_line_rate of the link's rate:
-- the tc rate it was shaped to, else its negotiated speed); the copy's share of line rate is
-- of the interface's line rate (int_deployment__interface_rates: none on a nominal speed).
with traffic as (
    select t.*
    from int_deployment__window_traffic as t
    join int_deployment__host_roles as r on r.campaign = t.campaign and r.host = t.host
    where t.window_kind = 'kv_snapshot' and r.role = 'worker'
),
speed as (
    select campaign, host, interface, busy_rate_bits_per_s, line_rate_bits_per_s, line_rate_basis
    from int_deployment__interface_rates
),
busy_param as (
    select value::double as busy_fraction
    from ref_measurement_params
    where parameter = 'busy_fraction_of_line_rate'
),
busy as (
    select
        traffic.campaign,
        sum(i.interval_s) as link_s,
        max(i.tx_bytes / i.interval_s) as peak_bytes_per_s,
        count(*) as busy_intervals
    from traffic
    join speed on speed.campaign = traffic.campaign and speed.host = traffic.host
        and speed.interface = traffic.interface
    join int_netdev__intervals as i
        on i.source_file = traffic.source_file and i.interface = traffic.interface
    cross join busy_param
    where i.end_unix_s > traffic.start_unix_s and i.start_unix_s < traffic.end_unix_s
      and bytes_to_bits(i.tx_bytes) / i.interval_s > busy_param.busy_fraction * speed.busy_rate_bits_per_s
    group by all
),
snap as (
    select *
    from int_deployment__kv_snapshots
    qualify row_number() over (partition by campaign order by saved_tokens desc, end_unix_s) = 1
),
worker_fa as (
    -- the KV the worker holds per token of the conversation: full-attention layers store every
    -- token, sliding-window layers at most their window (handled below with the token count)
    select p.campaign,
           count(*) filter (where kv.attention_kind = 'full') as fa_layers,
           list(struct_pack(b := kv.kv_bytes_per_token, w := kv.sliding_window_tokens)) as kv_layers
    from int_deployment__layer_placement as p
    join int_deployment__host_roles as r on r.campaign = p.campaign and r.host = p.host
    join int_deployment__layer_kv as kv on kv.campaign = p.campaign and kv.layer = p.layer
    where r.role = 'worker'
    group by all
),
final as (
    select
        traffic.campaign,
        traffic.host as worker_host,
        traffic.interface,
        traffic.source_file as netdev_file,
        snap.source_file as journal_file,
        snap.source_line as journal_line,
        snap.saved_tokens,
        snap.journal_s,
        [traffic.source_file, snap.source_file] as source_files,
        traffic.tx_bytes as copied_bytes,
        worker_fa.fa_layers as worker_fa_layers,
        kv.kv_bytes_per_token,
        list_sum(list_transform(worker_fa.kv_layers,
            lambda l: l.b * least(snap.saved_tokens, coalesce(l.w, snap.saved_tokens)))) as model_bytes,
        traffic.tx_bytes / list_sum(list_transform(worker_fa.kv_layers,
            lambda l: l.b * least(snap.saved_tokens, coalesce(l.w, snap.saved_tokens)))) - 1
            as measured_vs_model_fraction,
        busy.link_s,
        busy.busy_intervals,
        traffic.tx_bytes / busy.link_s as avg_bytes_per_s,
        busy.peak_bytes_per_s,
        speed.line_rate_bits_per_s,
        speed.line_rate_basis
    from traffic
    join snap on snap.campaign = traffic.campaign
    left join busy on busy.campaign = traffic.campaign
    left join worker_fa on worker_fa.campaign = traffic.campaign
    left join int_deployment__kv_bytes as kv on kv.campaign = traffic.campaign
    left join speed on speed.campaign = traffic.campaign and speed.host = traffic.host
        and speed.interface = traffic.interface
)
select * from final
order by campaign
