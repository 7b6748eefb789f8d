-- grain: one row per way of building the campaign models that make bench measured (Scaling out page)
-- key: configuration
-- why: the pipeline's own scale-out figures for the campaign models, measured by make bench
--    and declared in pipeline_models_scale_out.csv; printed as measured, with the speedup over
--    one campaign at a time.
-- column configuration: the way the campaign models were built, as the page prints it
-- column executor: the Dagster executor of the run (in_process, multiprocess)
-- column processes: how many steps ran at once, each in its own process (1 in process)
-- column campaigns: the campaigns built, one step each
-- column runs: how many times the configuration was run (the median is taken)
-- column median_s: the median wall time of a run of python -m pipeline.commands.scale_out with
--    every campaign file removed first (nothing parsed, every campaign model built)
-- column min_s: the fastest of the runs
-- column max_s: the slowest of the runs
-- column speedup_ratio: the in-process median divided by this configuration's median (above 1:
--    faster)
-- column steps_median_s: the median wall time of the campaign model steps alone in those runs:
--    from the first campaign's model step starting to the last one ending (Dagster's step
--    records of each run)
-- column steps_speedup_ratio: the in-process median of the model steps alone divided by this
--    configuration's
-- column outside_steps_s: the rest of the median run (median_s less steps_median_s): the
--    launcher, the raw layer's checks, the template and the summary step, one step at a time
--    in every executor
-- column files_identical: whether the campaign files every configuration left held the same rows
-- column measured_on: the date of the make bench run
-- column sort_order: the order of the page's table
-- column source: the command and machine that measured the row
with source as (
    select * from ref_pipeline_models_scale_out
),

final as (
    select
        configuration,
        executor,
        processes,
        campaigns,
        runs,
        median_s,
        min_s,
        max_s,
        speedup_ratio,
        -- double even when no run measured them (a column with no value is read as text)
        steps_median_s::double as steps_median_s,
        steps_speedup_ratio::double as steps_speedup_ratio,
        median_s - steps_median_s::double as outside_steps_s,
        files_identical,
        measured_on,
        sort_order,
        source
    from source
)

select * from final
order by sort_order
