-- grain: one row per campaign of a lab series (manifest params.lab_series, written by
-- python -m pipeline.collect llama-lab)
-- key: campaign
-- What each real llama.cpp RPC run of the namespace lab measured: the link (tbf rate, the
-- iperf3 TCP rate both ways, ping RTT), the anchor task's prefill and decode (llama-server's
-- own timings), the KV snapshot (the prompt-cache update the second request caused) and the
-- wire bytes per position during the prefill (netdev, idle removed) against the raw hidden
-- state. Only campaigns that name a series are rows: the series is the comparison the
-- validation (fct_lab_rpc_validation) makes on purpose, nothing else is pooled.
-- column series: the lab series the run belongs to (manifest params.lab_series); runs of one series
--    are compared
-- column shaped_rate_bits_per_s: the tbf rate the run's veth link was shaped to (manifest
--    params.lab_rate_mbit), empty when unshaped
-- column link_label: the run's link label from its manifest
-- column iperf3_head_to_worker_bits_per_s: the mean received TCP rate of the head -> worker iperf3
--    runs
-- column iperf3_worker_to_head_bits_per_s: the mean received TCP rate of the worker -> head iperf3
--    runs
-- column tcp_bytes_per_s: the link's measured usable TCP rate: the mean of the two iperf3
--    directions
-- column ubatch_s: one prefill micro-batch's time: ubatch positions / prefill tokens per second
-- column ubatch_bytes: the wire bytes one micro-batch moved, both directions
-- column decode_step_s: the measured decode step's duration
-- column decode_step_wire_bytes: one decode step's bytes from the prefill's per-position bytes:
--    verify positions x (both directions' bytes per position)
-- column snapshot_tokens: the tokens the KV snapshot saved (from the log)
-- column snapshot_s: the snapshot's duration as llama-server logged it
-- column snapshot_bytes: the bytes the snapshot copied over the link (netdev, idle removed)
-- column snapshot_model_bytes: the bytes the KV model expects: tokens x the worker's KV bytes per
--    token over its attention layers
with lab as (
    select
        campaign,
        params->>'lab_series' as series,
        mbit_to_bits(try_cast(params->>'lab_rate_mbit' as bigint)) as shaped_rate_bits_per_s
    from stg_raw__campaigns
    where kind = 'deployment' and params->>'lab_series' is not null
),
k as (
    select * from fct_deployment_constants
),
links as (
    select * from fct_deployment_links
),
snap as (
    select * from fct_kv_snapshot
),
final as (
    select
        lab.campaign,
        lab.series,
        lab.shaped_rate_bits_per_s,
        k.prefill_link_id as link_id,
        l.label as link_label,
        bytes_to_bits(l.iperf3_head_to_worker_bytes_per_s) as iperf3_head_to_worker_bits_per_s,
        bytes_to_bits(l.iperf3_worker_to_head_bytes_per_s) as iperf3_worker_to_head_bits_per_s,
        -- the link's usable TCP rate, measured: the mean of the two directions
        (l.iperf3_head_to_worker_bytes_per_s + l.iperf3_worker_to_head_bytes_per_s) / 2
            as tcp_bytes_per_s,
        l.rtt_avg_s,
        k.model_name,
        k.hidden_size,
        k.blocks_worker,
        k.blocks_head,
        k.ubatch_tokens,
        k.prefill_tokens,
        k.prefill_s,
        k.prefill_tokens_per_s,
        k.ubatch_tokens / k.prefill_tokens_per_s as ubatch_s,
        k.ubatch_bytes,
        k.decode_tokens,
        k.verify_positions,
        k.verify_step_s as decode_step_s,
        k.verify_positions * (k.wire_bytes_per_position_head_to_worker
                              + k.wire_bytes_per_position_worker_to_head) as decode_step_wire_bytes,
        -- what a decode step carried, measured over the decode task's eval window
        k.decode_step_measured_wire_bytes,
        k.raw_hidden_bytes_per_position,
        k.wire_bytes_per_position_head_to_worker,
        k.wire_bytes_per_position_worker_to_head,
        k.wire_to_raw_ratio_head_to_worker,
        k.wire_to_raw_ratio_worker_to_head,
        snap.saved_tokens as snapshot_tokens,
        snap.journal_s as snapshot_s,
        snap.copied_bytes as snapshot_bytes,
        snap.model_bytes as snapshot_model_bytes,
        list_sort(list_distinct(flatten([coalesce(k.source_files, []),
                                         coalesce(l.source_files, []),
                                         coalesce(snap.source_files, [])]))) as source_files
    from lab
    left join k on k.campaign = lab.campaign
    left join links as l on l.campaign = k.campaign and l.link_id = k.prefill_link_id
    left join snap on snap.campaign = lab.campaign
)
select * from final
order by series, shaped_rate_bits_per_s nulls last, campaign
