-- grain: one row per cited qualitative finding (section x sort order)
-- key: section, sort_order
-- why: §3.4, §4.2 and §5.2 bullets are declared data with their reference, not template prose.
with source as (
    select * from ref_published_findings
),

final as (
    select section, topic, reference_key, sort_order, finding
    from source
)

select * from final
order by section, sort_order
