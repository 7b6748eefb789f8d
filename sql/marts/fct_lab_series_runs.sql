-- grain: one row per run of a lab series campaign
-- key: campaign, run
-- Every run of a lab series as the head's log timed it (int_lab__series_runs), with its link's
-- measured TCP rate: the rows behind each rate's median (fct_lab_series_rates).
-- column series: the lab series (manifest params.lab_series)
-- column run: the run's number, in the order the runs were made
-- column round: the round the run belongs to (every rate once per round)
-- column position: the run's place in its round's shuffled order
-- column link_id: the run's link (veth_tbf<R>, or veth unshaped)
-- column shaped_rate_bits_per_s: the tbf rate, empty when unshaped
-- column tcp_bits_per_s: the link's measured TCP rate (mean of the two iperf3 directions)
-- column prefill_tokens: the prompt's tokens evaluated (prompt eval line of the prefill task)
-- column prefill_tokens_per_s: prefill tokens / prompt eval time
-- column decode_tokens: tokens the decode task generated (its eval line)
-- column decode_step_s: the decode task's eval time / its tokens
-- column snapshot_tokens: tokens the prompt cache saved before the snapshot task
-- column snapshot_s: the prompt-cache update's duration as logged
with runs as (
    select * from int_lab__series_runs
),
links as (
    select * from int_lab__series_links
),
final as (
    select
        runs.campaign,
        runs.series,
        runs.run,
        runs.round,
        runs.position,
        runs.link_id,
        links.shaped_rate_bits_per_s,
        bytes_to_bits(links.tcp_bytes_per_s) as tcp_bits_per_s,
        runs.prefill_tokens,
        runs.prefill_tokens_per_s,
        runs.decode_tokens,
        runs.decode_step_s,
        runs.snapshot_tokens,
        runs.snapshot_s,
        [runs.journal_file] as source_files
    from runs
    left join links using (campaign, link_id)
)
select * from final
order by campaign, run
