"""Tuning (`tvmc tune`): MetaSchedule records kept per *target fingerprint*, applied by `tvmc compile`.

fingerprint  the part of a config that changes generated code, and its hash (no TVM)
store        the database directory: partitions, MetaSchedule's JSON files, merge/export/prune (no TVM)
session      a tuning run: a child process tunes, the parent shows progress and keeps the records
worker       the child: task extraction and MetaSchedule (imports TVM)
remote       --rpc-tracker HOST:PORT parsing and TVM's RPC tracker session
"""

# Candidates per task when neither --trials nor --trials-per-task is given (and what compile's
# suggestion names for --tune). A budget in all gave a 12-task model ~15 each (200 in all, issue 29);
# 64 is four of MetaSchedule's batches of 16 per task.
DEFAULT_TRIALS_PER_TASK = 64
