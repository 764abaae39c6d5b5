"""The engine suite: importing it registers every engine check in the catalogue."""
