"""Campaigns are the partitions: one per folder under raw_data/deployments/ and raw_data/p2p/.

Dynamic, so a new folder adds a partition without a code change: ``python -m pipeline.commands.in_process``
and the raw_data sensor add the folders they find and delete the ones that are gone.
"""
from pathlib import Path

from dagster import DynamicPartitionsDefinition

from pipeline.ingest.scan import campaign_folders

CAMPAIGNS = DynamicPartitionsDefinition(name="campaign")
# The tags of a run over a range of partitions (Dagster's own names)
RANGE_START, RANGE_END = "dagster/asset_partition_range_start", "dagster/asset_partition_range_end"


def sync_partitions(instance, names: list[str]) -> tuple[list[str], list[str]]:
    """Make the instance's campaign partitions equal ``names``; returns (added, removed)."""
    have = set(instance.get_dynamic_partitions(CAMPAIGNS.name))
    added = sorted(set(names) - have)
    removed = sorted(have - set(names))
    if added:
        instance.add_dynamic_partitions(CAMPAIGNS.name, added)
    for name in removed:
        instance.delete_dynamic_partition(CAMPAIGNS.name, name)
    return added, removed


def sync_campaign_folders(instance, raw_data: Path) -> list[str]:
    """Register the campaign folders under ``raw_data`` as the instance's partitions (see
    ``sync_partitions``); returns them in the instance's order, the order of a range."""
    names = [name for _, name, _ in campaign_folders(raw_data)]
    sync_partitions(instance, names)
    return [n for n in instance.get_dynamic_partitions(CAMPAIGNS.name) if n in names]


def range_tags(ordered: list[str]) -> dict[str, str]:
    """The tags of one run over ``ordered`` campaigns, first to last (none for no campaign)."""
    return {RANGE_START: ordered[0], RANGE_END: ordered[-1]} if ordered else {}


def run_campaigns(context) -> list[str]:
    """The campaigns a partitioned step of this run covers (one, or a range)."""
    return list(context.partition_keys) if context.has_partition_key_range or \
        context.has_partition_key else []
