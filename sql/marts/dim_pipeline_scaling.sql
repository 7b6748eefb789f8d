-- grain: one row per tree size and kind of build that make bench timed (Scaling out page)
-- key: operation, campaigns
-- why: the pipeline's own scaling figures, measured by make bench (bench/scaling.py) and
--    declared in pipeline_scaling.csv: how a build's time grows with the number of campaigns,
--    for a full build and for a build after adding one campaign.
-- column campaigns: the campaigns in the generated tree (copies of five shipped ones in turn)
-- column operation: full build (make docs --force from an empty warehouse) or one campaign
--    added (make docs after copying one more campaign into the built tree)
-- column runs: how many times the build was timed (the median is taken)
-- column median_s: the median wall time of the build, site included
-- column min_s: the fastest of the runs
-- column max_s: the slowest of the runs
-- column per_campaign_s: median_s / campaigns, for a full build (empty for one campaign added,
--    whose cost is not spread over the campaigns)
-- column ratio_to_smallest: median_s divided by the median of the same operation on the
--    smallest tree
-- column what_ran: the build's own summary of what it built and kept (for an added campaign)
-- column measured_on: the date of the make bench run
-- column sort_order: the order of the page's table
-- column source: the command and machine that measured the row
with source as (
    select * from ref_pipeline_scaling
),

smallest as (
    select operation, arg_min(median_s, campaigns) as smallest_s
    from source
    group by operation
),

final as (
    select
        s.campaigns,
        s.operation,
        s.runs,
        s.median_s,
        s.min_s,
        s.max_s,
        case when s.operation = 'full build' then s.median_s / s.campaigns end as per_campaign_s,
        s.median_s / m.smallest_s as ratio_to_smallest,
        s.what_ran,
        s.measured_on,
        s.sort_order,
        s.source
    from source as s
    join smallest as m using (operation)
)

select * from final
order by sort_order
