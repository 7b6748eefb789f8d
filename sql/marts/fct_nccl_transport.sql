-- grain: one row per campaign and file in which NCCL said what it used (NCCL_DEBUG=INFO)
-- key: campaign, source_file
-- The interface and transport NCCL reported, from an nccl-tests log with INFO lines or a debug
-- log kept on its own, beside the interface the campaign names for that file (its context
-- `interface`, else NCCL_SOCKET_IFNAME in the manifest's params.env). A NULL is a fact NCCL did
-- not print, not a default.
-- column source_file: the log NCCL's INFO lines were read from
-- column nccl_version: the NCCL version the log prints
-- column net_plugin: the network transport NCCL used, from its "NET/<name> : Using" line (Socket, IB)
-- column net_interface: the interface that NET line names
-- column bootstrap_interface: the interface of NCCL's "Bootstrap : Using" line
-- column channel_transport: what NCCL's channel lines say they go "via" (NET/..., P2P/..., SHM)
-- column expected_interface: the interface the campaign names for the file (its context, else
--    NCCL_SOCKET_IFNAME of the manifest's params.env)
with reported as (
    select distinct campaign, source_file, nccl_version, net_plugin, net_interface,
           bootstrap_interface, channel_transport
    from stg_raw__nccl_tests
    where coalesce(nccl_version, net_interface, bootstrap_interface, channel_transport) is not null
    union all
    select campaign, source_file, nccl_version, net_plugin, net_interface, bootstrap_interface,
           channel_transport
    from stg_raw__nccl_debug
),
files as (
    select source_file, context from stg_raw__files
),
campaigns as (
    select campaign, params from stg_raw__campaigns
),
final as (
    select
        reported.*,
        [reported.source_file] as source_files,
        coalesce(files.context->>'interface', campaigns.params->'env'->>'NCCL_SOCKET_IFNAME')
            as expected_interface
    from reported
    left join files on files.source_file = reported.source_file
    left join campaigns on campaigns.campaign = reported.campaign
)
select * from final
order by campaign, source_file
