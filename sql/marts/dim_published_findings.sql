-- grain: one row per cited qualitative finding (section x sort order)
-- key: section, sort_order
-- why: §3.4, §4.2 and §5.2 bullets are declared data with their reference, not template prose.
-- column section: the page section the finding is cited in (3.4, 4.2, 5.2)
-- column topic: what the finding is about, in a few words
-- column sort_order: the order of the findings within their section
-- column finding: the finding as the page quotes it
with source as (
    select * from ref_published_findings
),

final as (
    select section, topic, reference_key, sort_order, finding
    from source
)

select * from final
order by section, sort_order
