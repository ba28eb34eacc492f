# Sweeps sharded over a Slurm job array (docs/slurm.md): planning the shards and writing their run directories, the batch script,
# slurm.json, sbatch and squeue, each task's record, and the merge. Part of the orchestrator.
target_sources(isobench_orchestrator PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/shard_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/shard_directory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sbatch_script.cpp
  ${CMAKE_CURRENT_LIST_DIR}/slurm_run.cpp
  ${CMAKE_CURRENT_LIST_DIR}/slurm_client.cpp
  ${CMAKE_CURRENT_LIST_DIR}/task_record.cpp
  ${CMAKE_CURRENT_LIST_DIR}/shard_merge.cpp)
