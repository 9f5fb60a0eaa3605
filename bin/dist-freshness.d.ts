export const ROOT: string;
export function distIsFresh(root?: string): boolean;
