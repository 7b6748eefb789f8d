-- grain: one row per way of running the raw layer that make bench measured (Scaling out page)
-- key: configuration
-- why: the pipeline's own scale-out figures, measured by make bench and declared in
--    pipeline_scale_out.csv; printed as measured, with the speedup over one step at a time.
-- column configuration: the way the raw layer ran, as the page prints it
-- column executor: the Dagster executor of the run (in_process, multiprocess)
-- column processes: how many steps ran at once, each in its own process (1 in process)
-- column parse_threads_per_step: the DuckDB threads each step parsed with
--    (INTERCONNECT_PARSE_THREADS; every core when unset)
-- column campaigns: the campaigns ingested, one step each
-- column capture_bytes: the size of each campaign's /proc/net/dev capture
-- column total_bytes: the bytes ingested by the run (campaigns x capture_bytes)
-- column runs: how many times the configuration was run (the median is taken)
-- column median_s: the median wall time of a run of python -m pipeline.commands.scale_out, from an
--    empty raw store to the last step
-- column min_s: the fastest of the runs
-- column max_s: the slowest of the runs
-- column speedup_ratio: the in-process, one-thread median divided by this configuration's
--    median (above 1: faster)
-- column throughput_bytes_per_s: total_bytes / median_s
-- column raw_layer_identical: whether the raw layer every configuration left (each raw
--    table's rows and each registry entry) was the same
-- column measured_on: the date of the make bench run
-- column sort_order: the order of the page's table
-- column source: the command and machine that measured the row
with source as (
    select * from ref_pipeline_scale_out
),

final as (
    select
        configuration,
        executor,
        processes,
        parse_threads_per_step,
        campaigns,
        capture_bytes,
        campaigns * capture_bytes as total_bytes,
        runs,
        median_s,
        min_s,
        max_s,
        speedup_ratio,
        campaigns * capture_bytes / median_s as throughput_bytes_per_s,
        raw_layer_identical,
        measured_on,
        sort_order,
        source
    from source
)

select * from final
order by sort_order
