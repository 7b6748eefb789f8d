"""The pages, docs/ and the site (autoloaded by ``dg``)."""
from dagster import Definitions, definitions

from pipeline.orchestration.assembly import location_graph


@definitions
def defs() -> Definitions:
    return Definitions(assets=location_graph().docs)
