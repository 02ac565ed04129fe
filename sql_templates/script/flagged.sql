{# An output table of a standalone script with the verdict of the input checks on every
   row (`input_valid`, from the `validation` step): numbers computed from input that
   failed a check are never shown without the flag. (`t.*`: the columns keep the names
   and quoting the output step gave them; no QUALIFY here.) #}
SELECT
  t.*,
  v.input_valid
FROM {{ relation }} AS t
CROSS JOIN {{ validation }} AS v
