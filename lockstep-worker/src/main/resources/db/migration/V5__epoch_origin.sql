-- Why an epoch began, as a value a replay can act on (docs/audit.md): whether the state at its
-- start follows from the command log before it. Earlier rows are classified by their reason.
ALTER TABLE partition_epochs ADD COLUMN origin TEXT;
UPDATE partition_epochs SET origin = CASE
    WHEN reason LIKE '%re-created%' OR reason LIKE '%taken as a re-created topic%' THEN 'TOPIC_RECREATED'
    WHEN reason LIKE '%gone from the log%' OR reason LIKE '%were never applied%' THEN 'RECORDS_LOST'
    WHEN reason = 'first start' THEN 'FIRST_START'
    ELSE 'CONTINUED' END;
ALTER TABLE partition_epochs ALTER COLUMN origin SET NOT NULL;
ALTER TABLE partition_epochs ADD CONSTRAINT partition_epochs_origin
    CHECK (origin IN ('FIRST_START', 'CONTINUED', 'TOPIC_RECREATED', 'RECORDS_LOST'));
