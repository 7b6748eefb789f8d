-- grain: one row per prompt-cache update logged by llama-server
-- "prompt cache update took N ms" ends the update; the save that it includes is the latest
-- "saving prompt with length L" line before it, which gives the tokens copied.
with journal as (
    select * from stg_deployment__journal
),
done as (
    select campaign, source_file, source_line, unix_s as end_unix_s, duration_s,
           unix_s - duration_s as start_unix_s
    from journal
    where event = 'cache_update_done'
),
saves as (
    select campaign, unix_s, source_line as save_line, tokens as saved_tokens, state_mib
    from journal
    where event = 'prompt_save'
),
final as (
    select
        done.campaign,
        done.source_file,
        done.source_line,
        done.start_unix_s,
        done.end_unix_s,
        done.duration_s as journal_s,
        saves.saved_tokens,
        saves.state_mib,
        saves.save_line
    from done
    asof left join saves
        on saves.campaign = done.campaign and done.end_unix_s >= saves.unix_s
)
select * from final
order by campaign, end_unix_s
