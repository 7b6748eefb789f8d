-- grain: one row per pipeline stage count x micro-batch count
-- key: pp_stages, micro_batches
-- why: §5.3: GPipe-style bubble = (stages - 1) / (stages + micro_batches - 1) of the time idle.
-- column pp_stages: the pipeline stage count (pipeline_grid.csv)
-- column micro_batches: the micro-batches in flight (pipeline_grid.csv)
-- column bubble_fraction: the share of the time a stage idles: (stages - 1) / (stages +
--    micro-batches - 1)
with grid as (
    select * from ref_pipeline_grid
),

stages as (
    select value::integer as pp_stages from grid where dimension = 'pp_stages'
),

micro_batches as (
    select value::integer as micro_batches from grid where dimension = 'micro_batches'
),

final as (
    select
        stages.pp_stages,
        micro_batches.micro_batches,
        (stages.pp_stages - 1)::double / (stages.pp_stages + micro_batches.micro_batches - 1)
            as bubble_fraction
    from stages
    cross join micro_batches
)

select * from final
order by pp_stages, micro_batches
