export const ROOT: string;
export const BUILD_STAMP: string;
export function distIsFresh(): boolean;
