"""One rank fails while the others wait in a collective: ``abort_on_error``
must end the whole job (a non-zero exit), not leave it hanging."""
import wavefront.distributed as wd
from wavefront.distributed.launch import abort_on_error

world = wd.world()
with abort_on_error(world):
    if world.rank == world.size - 1:
        raise RuntimeError(f"rank {world.rank} fails alone")
    world.barrier()
