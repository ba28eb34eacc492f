# Sweeps sharded over a Slurm job array (docs/slurm.md): the shards' plans and run directories,
# the batch script, slurm.json, sbatch and squeue, each task's record, the merge, and the
# executor that submits, waits, resumes and merges (slurm_executor: the run pipeline's executor
# for --executor slurm, orchestrator/run/executor.hpp).
# Part of the orchestrator's library.
target_sources(isobench_orchestrator PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/shard_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/shard_directory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sbatch_script.cpp
  ${CMAKE_CURRENT_LIST_DIR}/slurm_run.cpp
  ${CMAKE_CURRENT_LIST_DIR}/slurm_client.cpp
  ${CMAKE_CURRENT_LIST_DIR}/task_record.cpp
  ${CMAKE_CURRENT_LIST_DIR}/shard_merge.cpp
  ${CMAKE_CURRENT_LIST_DIR}/slurm_executor.cpp)
