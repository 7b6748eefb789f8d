-- grain: one row per cited reference
-- key: reference_key
-- why: the §References list; benchmark rows and findings point at it by reference_key.
-- column short_name: the reference's short name for in-text use
-- column citation: the full citation
-- column url: where the reference can be read
-- column note: what the pages take from it
with source as (
    select * from ref_references
),

final as (
    select reference_key, short_name, citation, url, note
    from source
)

select * from final
order by reference_key
