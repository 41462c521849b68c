"""The doctor: evidence to findings, per GPU and per layer, with the exact fix.

`diagnose` applies the rules in `gpuscope.doctor.rules`; `diagnosis_document` writes the
public `gpuscope.diagnosis/1` JSON (see the schema in the project's docs).
"""

from __future__ import annotations

from gpuscope.doctor.document import DIAGNOSIS_SCHEMA, diagnosis_document
from gpuscope.doctor.rules import DoctorInput, diagnose

__all__ = ["DIAGNOSIS_SCHEMA", "DoctorInput", "diagnose", "diagnosis_document"]
