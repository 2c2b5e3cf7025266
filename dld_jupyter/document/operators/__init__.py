"""What the document knows of operators: schemas, signatures, reference docs, palette categories."""
