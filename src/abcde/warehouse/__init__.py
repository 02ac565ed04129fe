"""The pipelines as SQL for a warehouse abcde cannot connect to: standalone scripts
(`abcde sql`) and dbt projects (`abcde dbt`)."""
