"""The warehouse resource of the code location's tree and the in-process executor."""
from dagster import Definitions, definitions

from pipeline.orchestration.assembly import resources_for
from pipeline.project import Project


@definitions
def defs() -> Definitions:
    return resources_for(Project.from_env())
